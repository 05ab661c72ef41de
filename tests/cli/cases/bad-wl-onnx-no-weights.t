setup: cp tests/fuzz/seeds/onnx/bad-no-weights.onnx $T/g.onnx && printf '[model]\nonnx = g.onnx\n[training]\nsamples = 1e6\n' >$T/w.ini
args: train $T/w.ini --gpu A100-SXM-80GB
exit: 3
