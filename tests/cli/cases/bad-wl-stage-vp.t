args: train examples/llama3-405b.ini --gpu H100-SXM --set training.vp=8 --set training.first_stage_layers=6
exit: 3
