args: train examples/gpt3-175b.ini --gpu A100-SXM-80GB --set training.recompute=selective --set training.sequence_parallel=true
exit: 0
