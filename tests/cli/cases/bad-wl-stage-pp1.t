args: train examples/llama3-8b.ini --gpu H100-SXM --set training.pp=1 --set training.first_stage_layers=16
exit: 3
