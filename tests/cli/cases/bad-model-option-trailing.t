args: train --model tests/cli/data/hf-trailing.json --gpu H100-SXM
exit: 3
