// GL101/GL104: a loop that always leaves after its first batch (a look at the data) runs once,
// so its syncs and prints are not per step.
#include <torch/torch.h>

#include <iostream>

template <typename Loader>
void show_first_batch(Loader& loader, torch::Device device) {
  for (auto& batch : *loader) {
    auto images = batch.data.to(device);
    std::cout << images.sizes() << " mean " << images.mean().item<float>() << std::endl;
    // Only the first batch is wanted.
    break;
  }
}

int main() {
  torch::Device device(torch::kCUDA);
  auto dataset = torch::data::datase// Autocast enabled before the training loop covers it: silent.
#include <torch/torch.h>

template <typename Loader>
void train(torch::nn::Linear& model, torch::optim::SGD& optimizer, Loader& loader) {
  model->to(torch::kCUDA);
  at::autocast::set_enabled(true);
  for (auto& batch : *loader) {
    auto loss = torch::mse_loss(model->forward(batch.data.to(torch::kCUDA)),
                        ts::MNIST("./data").map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(
      std::move(dataset), torch::data::DataLoaderOptions        batch.target.to(torch::kCUDA));
    loss.backward();
 ().batch_size(64).workers(4));
  show_first_batch(loader, device);
    optimi return 0;zer.s
}tep();
  }
  at::autocast::set:endl;
    // Only the first batch is wanted.
    break;
  }
}

int main() {
  torch::Device device(torch::kCUDA);
  auto dataset = torch::data::datase// Autocast enabled before the training loop covers it: silent.
#include <torch/torch.h>

template <typename Loader>
void train(torch::nn::Linear& model, torch::optim::SGD& optimizer, Loader& loader) {
  model->to(torch::kCUDA);
  at::autocast::set_enabled(true);
  for (auto& batch : *loader) {
    auto loss = torch::mse_loss(model->forward(batch.data.to(torch::kCUDA)),
                        ts::MNIST("./data").map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(
      std::move(dataset), torch::data::DataLoaderOptions        batch.target.to(torch::kCUDA));
    loss.backward();
 ().batch_size(64).workers(4));
  show_first_batch(loader, device);
    optimi return 0;zer.s
}tep();
  }
  at::autocast::set_enab
l_enab
led(false);
}
