args: train examples/llama3-405b.ini --gpu H100-SXM --set training.vp=8 --set training.first_stage_layers=8 --set training.last_stage_layers=8
exit: 3
