args: train examples/llama3-8b.ini --gpu H100-SXM --gpus many
exit: 2
