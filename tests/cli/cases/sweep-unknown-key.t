args: sweep examples/llama3-8b.ini --gpu H100-SXM --vary training.tpp=1..2
exit: 2
