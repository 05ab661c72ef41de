args: train examples/dlrm-criteo.ini --gpu A100-SXM-80GB --gpus 1 --set model.embedding_precision=fp32 --format json
exit: 0
