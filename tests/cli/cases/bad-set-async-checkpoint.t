args: train examples/llama3-8b.ini --gpu H100-SXM --set training.async_checkpoint=sometimes
exit: 2
