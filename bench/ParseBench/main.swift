print("ParseBench")
