args: train examples/llama3-405b.ini --gpu H100-SXM --set training.last_stage_layers=0
exit: 2
