args: train --model examples/hf/qwen2-7b.json --gpu H100-SXM --gpus 64 --set training.tokens=1e12
exit: 0
