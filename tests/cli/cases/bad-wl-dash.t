stdin: tests/cli/data/wl-bad-bool.ini
args: fit - --gpu H100-SXM
exit: 3
