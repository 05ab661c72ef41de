args: train examples/llama3-8b.ini --gpu H100-SXM --keep-script
exit: 2
