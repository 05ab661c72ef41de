setup: mkfifo $T/config.json && printf '[model]\nhf_config = config.json\n' >$T/w.ini
args: fit $T/w.ini --gpu H100-SXM
exit: 4
