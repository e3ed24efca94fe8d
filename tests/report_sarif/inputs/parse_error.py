# A syntax error: GL000 is a result and a tool notification.
import torch

for batch in loader  # expect: GL000
    loss = model(batch)
