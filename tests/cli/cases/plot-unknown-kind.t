args: plot pie examples/llama3-8b.ini -o chart.png
exit: 2
