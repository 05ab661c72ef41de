args: catalog --gpu RTX-4090,H100-SXM,Jetson-Orin-Nano-Super-8GB --format csv
exit: 0
