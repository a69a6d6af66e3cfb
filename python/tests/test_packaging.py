"""Standard exceptions for bad input, and the package as installed:
`cmake --install` into a prefix, imported by /usr/bin/python3 without
PYTHONPATH; the import under another Python; check-python.sh's paths."""
import errno
import os
import shutil
import subprocess
import sys

import pytest

import mlgo
from conftest import SOURCE

PKG = os.path.dirname(os.path.abspath(mlgo.__file__))
BUILD = os.path.dirname(os.path.dirname(PKG))
IN_BUILD = os.path.isfile(os.path.join(BUILD, "CMakeCache.txt"))
PYTHON = mlgo._config.PYTHON


def assert_not_found(exc_info, path):
    e = exc_info.value
    assert e.errno == errno.ENOENT and e.filename == path, e
    assert repr(path) in str(e)


def test_missing_files_are_file_not_found_errors(tiny_corpus, tmp_path):
    missing = str(tmp_path / "nothing")
    with pytest.raises(FileNotFoundError) as e:
        mlgo.Corpus(missing)
    assert_not_found(e, missing)
    assert str(e.value) == (f"[Errno 2] no such corpus directory: "
                            f"'{missing}'")
    with pytest.raises(FileNotFoundError) as e:
        mlgo.InliningEnv(missing)
    assert_not_found(e, missing)
    os.mkdir(missing)
    with pytest.raises(FileNotFoundError) as e:
        mlgo.Corpus(missing)
    assert_not_found(e, os.path.join(missing, "corpus_description.json"))
    for call in (mlgo.read_log, mlgo.code_size, mlgo.Model.load,
                 lambda p: mlgo.EvictionEnv(files=[p])):
        path = str(tmp_path / "absent.file")
        with pytest.raises(FileNotFoundError) as e:
            call(path)
        assert_not_found(e, path)
    # A corpus that lost a module's bitcode.
    holed = tmp_path / "holed"
    shutil.copytree(tiny_corpus, holed)
    os.remove(holed / "alpha/text.o.bc")
    with pytest.raises(FileNotFoundError) as e:
        mlgo.Corpus(str(holed))
    assert_not_found(e, str(holed / "alpha/text.o.bc"))
    assert "corpus module alpha/text.o: no bitcode" in str(e.value)


def test_another_pythons_import_names_both_versions(tmp_path):
    # The package as a build for another Python would be: _config says
    # 3.99 and the extension's file name is not this interpreter's.
    pkg = tmp_path / "mlgo"
    shutil.copytree(PKG, pkg)
    core = [f for f in os.listdir(pkg) if f.startswith("_core.")][0]
    os.rename(pkg / core, pkg / "_core.cpython-399-x86_64-linux-gnu.so")
    config = (pkg / "_config.py").read_text()
    here = "%d.%d" % sys.version_info[:2]
    (pkg / "_config.py").write_text(config.replace(
        f'PYTHON_VERSION = "{here}"', 'PYTHON_VERSION = "3.99"'))
    r = subprocess.run([sys.executable, "-c", "import mlgo"],
                       capture_output=True, text=True, cwd=tmp_path,
                       env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last == (
        f"ImportError: mlgo: this package's extension (mlgo._core) was "
        f"built for Python 3.99 ({PYTHON}), and this is Python {here} "
        f"({sys.executable}); run it with {PYTHON}, or build mlgo for this "
        f"interpreter (cmake -DMLGO_PYTHON={sys.executable})")
    assert "circular import" not in last


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTHON") and k != "HOME"}
    env.update(extra)
    return env


def install(prefix, **env):
    r = subprocess.run(["cmake", "--install", BUILD, "--prefix", str(prefix)],
                       capture_output=True, text=True, env=clean_env(**env))
    assert r.returncode == 0, r.stderr
    return r.stdout


def import_where(cwd, **env):
    r = subprocess.run(
        ["/usr/bin/python3", "-c",
         "import mlgo; print(mlgo.__file__); print(mlgo.plugin_path())"],
        capture_output=True, text=True, cwd=cwd, env=clean_env(**env))
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


needs_build = pytest.mark.skipif(
    not IN_BUILD or PYTHON != "/usr/bin/python3",
    reason="needs the package of a build tree made for /usr/bin/python3")


@needs_build
def test_install_into_user_prefix_imports_without_pythonpath(tmp_path):
    # `cmake --install build --prefix ~/.local`, HOME being tmp_path.
    home = tmp_path / "home"
    home.mkdir()
    prefix = home / ".local"
    out = install(prefix, HOME=str(home))
    v = "%d.%d" % sys.version_info[:2]
    site = prefix / f"lib/python{v}/site-packages"
    assert f"mlgo: the Python package goes to {site}, where " \
        f"/usr/bin/python3 finds it" in out
    where = import_where(tmp_path, HOME=str(home))
    assert where == [str(site / "mlgo/__init__.py"),
                     str(prefix / "lib/mlgo/mlgo-plugin.so")]


@needs_build
def test_install_elsewhere_prints_the_line_to_add(tmp_path):
    prefix = tmp_path / "opt"
    out = install(prefix, HOME=str(tmp_path))
    site = prefix / "lib/python3/dist-packages"
    assert f"export PYTHONPATH={site}\n" in out
    r = subprocess.run(["/usr/bin/python3", "-c", "import mlgo"],
                       capture_output=True, text=True, cwd=tmp_path,
                       env=clean_env(HOME=str(tmp_path)))
    assert r.returncode == 1 and "No module named 'mlgo'" in r.stderr
    where = import_where(tmp_path, HOME=str(tmp_path), PYTHONPATH=str(site))
    assert where == [str(site / "mlgo/__init__.py"),
                     str(prefix / "lib/mlgo/mlgo-plugin.so")]
    examples = prefix / "share/doc/mlgo/examples/python"
    assert (examples / "ppo_inline.py").is_file()


@needs_build
def test_check_python_takes_an_absolute_build_path(tmp_path):
    script = os.path.join(SOURCE, "scripts/check-python.sh")
    for build in (BUILD, os.path.relpath(BUILD, tmp_path)):
        r = subprocess.run([script, build, "--collect-only", "-q",
                            "python/tests/test_model.py"],
                           capture_output=True, text=True, cwd=tmp_path,
                           env=clean_env(HOME=os.environ.get("HOME", "/")))
        assert r.returncode == 0, r.stdout + r.stderr
        assert "python/tests/test_model.py: " in r.stdout
