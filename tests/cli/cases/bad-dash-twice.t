args: train - --catalog - --gpu H100-SXM
exit: 2
