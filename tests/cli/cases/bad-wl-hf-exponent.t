setup: cp tests/fuzz/seeds/hf/issue40-exponent.json $T/c.json && printf '[model]\nhf_config = c.json\n[training]\ntokens = 1T\n' >$T/w.ini
args: train $T/w.ini --gpu H100-SXM
exit: 3
