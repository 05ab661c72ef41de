setup: printf '[model]\nhf_config = hf-duplicate.json\n' >$T/w.ini && cp tests/cli/data/hf-duplicate.json $T/
args: train $T/w.ini --gpu H100-SXM
exit: 3
