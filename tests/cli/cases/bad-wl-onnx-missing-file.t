setup: printf '[model]\nonnx = none.onnx\n[training]\nsamples = 1e6\n' >$T/w.ini
args: train $T/w.ini --gpu A100-SXM-80GB
exit: 4
