"""``ember.torch.autograd``."""
