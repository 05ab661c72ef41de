args: train examples/gpt3-175b.ini --gpu A100-SXM-80GB --set training.vp=1 --set training.micro_batch=1 --search
exit: 0
