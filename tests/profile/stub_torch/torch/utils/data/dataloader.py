import time


class _BaseDataLoaderIter:
    def __init__(self, n):
        self.left = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.left == 0:
            raise StopIteration
        self.left -= 1
        time.sleep(0.0003)
        return self.left
