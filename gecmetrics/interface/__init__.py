"""The interface: the ``gecmetrics`` command (console, cli, commands/) and the renderers
of scores and reports. The top layer: it may import every layer below, and none imports it."""
