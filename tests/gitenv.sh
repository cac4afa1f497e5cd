# gitenv.sh - sourced first by the tests' repository generators
# (tests/*repo.sh): the user's and the system's git configuration are
# ignored and no GIT_DIR, work tree or index of a calling git reaches
# them, so the repositories (and their ids) are the same on every machine.
GIT_CONFIG_NOSYSTEM=1
GIT_CONFIG_GLOBAL=/dev/null
export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE 2>/dev/null || true
