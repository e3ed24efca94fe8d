_hooks = {}


class _Handle:
    def __init__(self, key):
        self.key = key

    def remove(self):
        _hooks.pop(self.key, None)


def register_optimizer_step_post_hook(hook):
    key = len(_hooks) + 1000
    _hooks[key] = hook
    return _Handle(key)


class Optimizer:
    def step(self):
        for hook in list(_hooks.values()):
            hook(self, (), {})
