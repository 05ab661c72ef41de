stdin: tests/cli/data/wl-ok.ini
args: fit /dev/stdin --gpu H100-SXM
exit: 0
