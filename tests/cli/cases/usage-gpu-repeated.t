args: catalog --gpu H100-SXM,h100-sxm,B200,H100-sxm,b200
exit: 0
