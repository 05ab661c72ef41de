args: train examples/resnet50-onnx.ini --gpu A100-SXM-80GB --set training.embedding_sharding=row_wise
exit: 3
