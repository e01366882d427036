class Value:
    def __init__(self, data)
        self.data = data
