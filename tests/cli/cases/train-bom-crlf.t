args: train tests/cli/data/wl-bom-crlf.ini --gpu A100-SXM-80GB
exit: 0
