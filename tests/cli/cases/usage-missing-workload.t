args: train --gpu H100-SXM
exit: 2
