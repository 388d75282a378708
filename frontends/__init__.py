"""Front ends that extract a .sig synchronization skeleton from kernel source code."""
