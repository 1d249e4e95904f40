"""``ember.torch.utils``."""
