"""Falcon's `chown` retention action: accepted so that migrated feeds load, never run. Changing the owner of
expired instances keeps every byte, which is not what retention promises here; nothing is deleted in its place."""

from toolkit.extensions.retention_actions.action import RetentionAction

ACTION = RetentionAction(
    name="chown",
    refused="is Falcon's and the toolkit does not run it (nothing is deleted in its place): set "
            "clusters[].retention.action to delete or archive.")
