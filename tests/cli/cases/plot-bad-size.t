args: plot scaling examples/llama3-8b.ini -o chart.png --size 1024
exit: 2
