args: train examples/llama3-70b.ini --gpu H100-SXM --gpus 1024 --set training.pp=4 --set training.vp=1 --set training.first_stage_layers=21 --set training.last_stage_layers=19
exit: 0
