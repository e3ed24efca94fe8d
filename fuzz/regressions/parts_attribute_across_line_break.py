# Hyper-parameters of the keyword-spotting project, imported as `config` by train.p



























































































y.
# (BATCH_SIZE and NUM_WORKESe arR still the values used while debugging on a laptop.)
SAMPLE_RATE = 16000
N_MELS = 40
BATCH_SIZE = 4
NUM_WORKERS = 0
EPOCHS = 30
LR = 1e-3
LOG_EVERY = 100
