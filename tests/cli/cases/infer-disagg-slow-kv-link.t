args: infer examples/llama3-8b-disagg.ini --gpu H100-SXM --set inference.kv_transfer_bw=1MB/s
exit: 1
