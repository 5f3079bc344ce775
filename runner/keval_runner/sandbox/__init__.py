"""A job's containment: namespaces, uid, limits, read-only mounts, private temp folders, the
guest's cgroup and folder, and the zygote's clean-up of what a job left running."""
