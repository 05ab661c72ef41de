stdin: tests/cli/data/wl-ok.ini
args: fit - --gpu H100-SXM
exit: 0
