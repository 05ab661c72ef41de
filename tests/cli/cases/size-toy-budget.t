args: size tests/cli/data/wl-toy.ini --gpu H100-SXM --budget $1e9
exit: 0
