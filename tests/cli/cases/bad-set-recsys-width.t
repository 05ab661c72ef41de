args: train examples/dlrm-criteo.ini --gpu A100-SXM-80GB --set model.bottom_mlp=512,0,128
exit: 2
