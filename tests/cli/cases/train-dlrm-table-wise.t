args: train examples/dlrm-criteo.ini --gpu A100-SXM-80GB --set training.embedding_sharding=table_wise
exit: 0
