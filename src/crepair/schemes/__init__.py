"""Repair schemes: each yields checked :class:`~crepair.records.Repair`
records through the interface of :mod:`crepair.schemes.base`;
:class:`~crepair.schemes.run.RepairRun` composes them."""
