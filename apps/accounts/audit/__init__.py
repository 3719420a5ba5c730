"""The audit log: who did what, when and from where (issue 20).

- ``actions``: the action codes and their labels in both languages;
- ``models``: ``AuditEntry``, append-only;
- ``context``: the request being served, so a service records its actor and address;
- ``services``: ``audit_record`` (the one writer), the retention purge, field diffs;
- ``selectors``, ``serializers``, ``api``: the read API (owners and admins only);
- ``receivers``: sign-ins, failures, lock-outs and sign-outs, from Django's and axes' signals.

Nothing is imported here, so the app's models module can import the model without a cycle.
"""
