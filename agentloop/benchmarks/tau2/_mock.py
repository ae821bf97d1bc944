"""τ²-bench's mock domain (users and their to-do tasks), written here from its published tool
specifications and database schema: the small domain τ²-bench itself tests with. Since
τ²-bench 1.0 the user has tools of its own too: a notification inbox (``MockUserTools``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agentloop.benchmarks.tau2._toolkit import DB, Toolkit, tau2_tool

__all__ = ["MockDB", "MockTools", "MockUserDB", "MockUserTools"]

TaskStatus = Literal["pending", "completed"]
NotificationStatus = Literal["unread", "read"]

_TRANSFER = (
    "Transfer the user to a human agent, with a summary of the user's issue.\n\n"
    "Only transfer if\n -  the user explicitly asks for a human agent\n -  given the policy and "
    "the available tools, you cannot solve the user's issue."
)


class Task(BaseModel):
    task_id: str = Field(description="Unique identifier for the task")
    title: str = Field(description="Title of the task")
    description: str | None = Field(None, description="Description of the task")
    status: TaskStatus = Field(description="Status of the task")


class User(BaseModel):
    user_id: str = Field(description="Unique identifier for the user")
    name: str = Field(description="User's name")
    tasks: list[str] = Field(description="List of task IDs assigned to the user")


class MockDB(DB):
    """Users and their tasks."""

    tasks: dict[str, Task]
    users: dict[str, User]


class MockTools(Toolkit):
    """The mock domain's agent tools."""

    db: MockDB

    @tau2_tool(
        "write",
        "Create a new task for a user.",
        {
            "user_id": "The ID of the user creating the task",
            "title": "The title of the task",
            "description": "Optional description of the task",
        },
    )
    def create_task(self, user_id: str, title: str, description: str = None) -> Task:  # type: ignore[assignment]  # noqa: RUF013  (τ²-bench's signature: a null default)
        if user_id not in self.db.users:
            raise ValueError(f"User {user_id} not found")
        task_id = f"task_{len(self.db.tasks) + 1}"
        task = Task(task_id=task_id, title=title, description=description, status="pending")
        self.db.tasks[task_id] = task
        self.db.users[user_id].tasks.append(task_id)
        return task

    @tau2_tool("read", "Get all users in the database.")
    def get_users(self) -> list[User]:
        return list(self.db.users.values())

    @tau2_tool(
        "write",
        "Update the status of a task.",
        {"task_id": "The ID of the task to update", "status": "The new status of the task"},
    )
    def update_task_status(self, task_id: str, status: TaskStatus) -> Task:
        if task_id not in self.db.tasks:
            raise ValueError(f"Task {task_id} not found")
        task = self.db.tasks[task_id]
        task.status = status
        return task

    @tau2_tool("generic", _TRANSFER, {"summary": "A summary of the user's issue."})
    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    # not tools: what a task's env_assertions call
    def assert_number_of_tasks(self, user_id: str, expected_number: int) -> bool:
        if user_id not in self.db.users:
            raise ValueError(f"User {user_id} not found")
        return len(self.db.users[user_id].tasks) == expected_number

    def assert_task_status(self, task_id: str, expected_status: TaskStatus) -> bool:
        if task_id not in self.db.tasks:
            raise ValueError(f"Task {task_id} not found")
        return self.db.tasks[task_id].status == expected_status


class Notification(BaseModel):
    """A notification in the user's inbox."""

    model_config = ConfigDict(extra="forbid")
    notification_id: str = Field(description="Unique identifier for the notification")
    message: str = Field(description="The notification message")
    status: NotificationStatus = Field(
        default="unread", description="Whether the notification has been read"
    )
    task_id: str | None = Field(None, description="Associated task ID, if applicable")


class MockUserDB(DB):
    """The user's notification inbox."""

    notifications: dict[str, Notification] = Field(default_factory=dict)


class MockUserTools(Toolkit):
    """The mock domain's user tools (τ²-bench 1.0): the user's notification inbox."""

    db: MockUserDB

    @tau2_tool("read", "Check all notifications in the user's inbox.")
    def check_notifications(self) -> list[Notification]:
        return list(self.db.notifications.values())

    @tau2_tool(
        "write",
        "Dismiss (mark as read) a notification.",
        {"notification_id": "The ID of the notification to dismiss."},
    )
    def dismiss_notification(self, notification_id: str) -> str:
        if notification_id not in self.db.notifications:
            raise ValueError(f"Notification {notification_id} not found")
        self.db.notifications[notification_id].status = "read"
        return f"Notification {notification_id} dismissed"

    # not tools: a task's initialization actions and env assertions
    def add_notification(
        self, notification_id: str, message: str, task_id: str | None = None
    ) -> Notification:
        notification = Notification(
            notification_id=notification_id, message=message, task_id=task_id
        )
        self.db.notifications[notification_id] = notification
        return notification

    def assert_notification_status(self, notification_id: str, expected_status: str) -> bool:
        if notification_id not in self.db.notifications:
            raise ValueError(f"Notification {notification_id} not found")
        return self.db.notifications[notification_id].status == expected_status
