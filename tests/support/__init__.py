"""What the tests share besides the fixtures of ``tests/conftest.py``: real servers on 127.0.0.1
(:mod:`~support.servers`: PostgreSQL, Prefect, the receiver as a process, small disks), the
command line run as a user runs it (:mod:`~support.cli`), webhook receivers in-process and
deliveries posted to them (:mod:`~support.webhooks`), and the provider's answers drawn from its
spec (:mod:`~support.stream_answers`)."""
