import json

import torch


class ProfilerActivity:
    CPU = "CPU"
    CUDA = "CUDA"


class profile:
    def __init__(self, activities=None):
        self.activities = activities

    def start(self):
        torch._recording[0] = True

    def stop(self):
        torch._recording[0] = False

    def export_chrome_trace(self, path):
        with open(path, "w") as f:
            json.dump({"traceEvents": torch._events}, f)
