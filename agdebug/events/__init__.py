"""Events: typed records of every step the engine takes, and the bus they travel on."""
