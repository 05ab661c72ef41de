args: plot scaling examples/llama3-8b.ini -o chart.pdf
exit: 2
