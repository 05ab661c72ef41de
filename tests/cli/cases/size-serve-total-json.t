args: size examples/llama3-70b-serving.ini --deadline 60d --gpu H100-SXM,MI300X --serve-for 180d --format json
exit: 0
