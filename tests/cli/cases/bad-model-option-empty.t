args: train --model= --gpu H100-SXM
exit: 2
