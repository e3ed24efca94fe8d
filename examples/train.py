import argparse
import logging
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

logger = logging.getLogger(__name__)


class SyntheticImages(Dataset):
    def __init__(self, size, num_classes=10, image_size=32):
        self.size = size
        self.num_classes = num_classes
        self.image_size = image_size

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        g = torch.Generator().manual_seed(idx)
        image = torch.randn(3, self.image_size, self.image_size, generator=g)
        label = torch.randint(0, self.num_classes, (), generator=g)
        return image, label


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(64 * 8 * 8, 256)
        self.fc2 = nn.Linear(256, num_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def parse_args():
    parser = argparse.ArgumentParser(description="Train a small CNN on synthetic images")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--samples", type=int, default=10000)
    parser.add_argument("--num-classes", type=int, default=10)
    parser.add_argument("--smoothing", type=float, default=0.1)
    return parser.parse_args()


def main():
    args = parse_args()
    logging.basicConfig(level=logging.INFO)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    dataset = SyntheticImages(args.samples, num_classes=args.num_classes)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True)

    model = SmallCNN(num_classes=args.num_classes).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    step = 0
    for epoch in range(args.epochs):
        model.train()
        running_loss = 0.0
        all_preds, all_labels = [], []
        for i, (images, labels) in enumerate(loader):
            start = time.perf_counter()
            images, targets = images.to(device), labels.to(device)

            soft = torch.zeros(targets.size(0), args.num_classes).to(device)
            soft.fill_(args.smoothing / (args.num_classes - 1))
            soft.scatter_(1, targets.unsqueeze(1), 1.0 - args.smoothing)

            optimizer.zero_grad()
            logits = model(images)
            loss = torch.sum(-soft * F.log_softmax(logits, dim=1), dim=1).mean()
            loss.backward()
            optimizer.step()
            torch.cuda.synchronize()
            elapsed = time.perf_counter() - start

            running_loss += loss.item()
            preds = logits.argmax(dim=1)
            all_preds.append(preds.cpu())
            all_labels.append(labels)
            print(f"epoch {epoch} batch {i} loss {running_loss / (i + 1):.4f} ({elapsed * 1000:.1f} ms)")

            if step % 100 == 0:
                logger.info("step %d: loss %.4f", step, running_loss / (i + 1))
            step += 1

        accuracy = (torch.cat(all_preds) == torch.cat(all_labels)).float().mean().item()
        logger.info("epoch %d: loss %.4f, accuracy %.3f", epoch, running_loss / len(loader), accuracy)

    torch.save(model.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
