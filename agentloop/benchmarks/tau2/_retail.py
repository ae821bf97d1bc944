"""τ²-bench's retail domain (products, users, orders), written here from its published tool
specifications and database schema. Field order follows the published schema, so a result's
JSON reads as τ²-bench's. Tool descriptions are τ²-bench's as its docstring reader renders
them (the break after a first line that runs on is theirs)."""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from agentloop.benchmarks.tau2._toolkit import DB, Toolkit, calculate, tau2_tool

__all__ = ["RetailDB", "RetailTools"]

OrderStatus = Literal[
    "processed",
    "pending",
    "pending (item modified)",
    "delivered",
    "cancelled",
    "exchange requested",
    "return requested",
]
CancelReason = Literal["no longer needed", "ordered by mistake"]


class Variant(BaseModel):
    item_id: str
    options: dict[str, str]
    available: bool
    price: float


class Product(BaseModel):
    name: str
    product_id: str
    variants: dict[str, Variant]


class UserName(BaseModel):
    first_name: str
    last_name: str


class UserAddress(BaseModel):
    address1: str
    address2: str
    city: str
    country: str
    state: str
    zip: str


class PaymentMethodBase(BaseModel):
    source: str
    id: str


class CreditCard(PaymentMethodBase):
    source: Literal["credit_card"]
    brand: str
    last_four: str


class Paypal(PaymentMethodBase):
    source: Literal["paypal"]


class GiftCard(PaymentMethodBase):
    source: Literal["gift_card"]
    balance: float
    id: str


PaymentMethod = Annotated[CreditCard | GiftCard | Paypal, Field(discriminator="source")]


class User(BaseModel):
    user_id: str
    name: UserName
    address: UserAddress
    email: str
    payment_methods: dict[str, PaymentMethod]
    orders: list[str]


class OrderFullfilment(BaseModel):
    tracking_id: list[str]
    item_ids: list[str]


class OrderItem(BaseModel):
    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]


class OrderPayment(BaseModel):
    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


class Order(BaseModel):
    order_id: str
    user_id: str
    address: UserAddress
    items: list[OrderItem]
    status: OrderStatus
    fulfillments: list[OrderFullfilment]
    payment_history: list[OrderPayment]
    cancel_reason: CancelReason | None = None
    exchange_items: list[str] | None = None
    exchange_new_items: list[str] | None = None
    exchange_payment_method_id: str | None = None
    exchange_price_difference: float | None = None
    return_items: list[str] | None = None
    return_payment_method_id: str | None = None


class RetailDB(DB):
    """All products, users and orders."""

    products: dict[str, Product]
    users: dict[str, User]
    orders: dict[str, Order]


def _count_check(order: Order, item_ids: list[str], message: str) -> None:
    """Every listed item (duplicates counted) is in the order; else ``message``, where
    ``{}`` is the first item short of copies."""
    have = [item.item_id for item in order.items]
    for item_id in item_ids:
        if item_ids.count(item_id) > have.count(item_id):
            raise ValueError(message.format(item_id))


class RetailTools(Toolkit):
    """The retail domain's agent tools."""

    db: RetailDB

    def _get_order(self, order_id: str) -> Order:
        if order_id not in self.db.orders:
            raise ValueError("Order not found")
        return self.db.orders[order_id]

    def _get_user(self, user_id: str) -> User:
        if user_id not in self.db.users:
            raise ValueError("User not found")
        return self.db.users[user_id]

    def _get_product(self, product_id: str) -> Product:
        if product_id not in self.db.products:
            raise ValueError("Product not found")
        return self.db.products[product_id]

    def _get_variant(self, product_id: str, variant_id: str) -> Variant:
        product = self._get_product(product_id)
        if variant_id not in product.variants:
            raise ValueError("Variant not found")
        return product.variants[variant_id]

    def _payment_method(self, user_id: str, payment_method_id: str) -> PaymentMethod:
        user = self._get_user(user_id)
        if payment_method_id not in user.payment_methods:
            raise ValueError("Payment method not found")
        return user.payment_methods[payment_method_id]

    def _price_difference(
        self, order: Order, item_ids: list[str], new_item_ids: list[str], *, same_id_refused: bool
    ) -> tuple[float, Variant | None]:
        """The new items' total price minus the old ones', and the last new variant."""
        difference: float = 0
        variant = None
        for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
            if same_id_refused and item_id == new_item_id:
                raise ValueError("The new item id should be different from the old item id")
            item = next((i for i in order.items if i.item_id == item_id), None)
            if item is None:
                raise ValueError(f"Item {item_id} not found")
            variant = self._get_variant(item.product_id, new_item_id)
            if not variant.available:
                raise ValueError(f"New item {new_item_id} not found or available")
            difference += variant.price - item.price
        return difference, variant

    @tau2_tool(
        "generic",
        "Calculate the result of a mathematical expression.",
        {
            "expression": (
                "The mathematical expression to calculate, such as '2 + 2'. The expression can "
                "contain numbers, operators (+, -, *, /), parentheses, and spaces."
            ),
        },
    )
    def calculate(self, expression: str) -> str:
        return calculate(expression)

    @tau2_tool(
        "write",
        (
            "Cancel a pending order. If the order is already processed or delivered,\n\nit cannot "
            "be cancelled. The agent needs to explain the cancellation detail\nand ask for "
            "explicit user confirmation (yes/no) to proceed. If the user confirms,\nthe order "
            "status will be changed to 'cancelled' and the payment will be refunded.\nThe refund "
            "will be added to the user's gift card balance immediately if the payment\nwas made "
            "using a gift card, otherwise the refund would take 5-7 business days to process.\n"
            "The function returns the order details after the cancellation."
        ),
        {
            "order_id": (
                "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the "
                "beginning of the order id."
            ),
            "reason": (
                "The reason for cancellation, which should be either 'no longer needed' or "
                "'ordered by mistake'."
            ),
        },
    )
    def cancel_pending_order(self, order_id: str, reason: str) -> Order:
        order = self._get_order(order_id)
        if order.status != "pending":
            raise ValueError("Non-pending order cannot be cancelled")
        if reason not in {"no longer needed", "ordered by mistake"}:
            raise ValueError("Invalid reason")
        refunds = []
        for payment in order.payment_history:
            refunds.append(
                OrderPayment(
                    transaction_type="refund",
                    amount=payment.amount,
                    payment_method_id=payment.payment_method_id,
                )
            )
            user = self._get_user(order.user_id)
            method = self._payment_method(user.user_id, payment.payment_method_id)
            if isinstance(method, GiftCard):  # refunded to the gift card at once
                method.balance = round(method.balance + payment.amount, 2)
        order.status = "cancelled"
        order.cancel_reason = reason  # type: ignore[assignment]  # checked above
        order.payment_history.extend(refunds)
        return order

    @tau2_tool(
        "write",
        (
            "Exchange items in a delivered order to new items of the same product type.\n\nFor a "
            "delivered order, return or exchange can be only done once by the agent.\nThe agent "
            "needs to explain the exchange detail and ask for explicit user confirmation (yes/no) "
            "to proceed."
        ),
        {
            "order_id": (
                "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the "
                "beginning of the order id."
            ),
            "item_ids": (
                "The item ids to be exchanged, each such as '1008292230'. There could be "
                "duplicate items in the list."
            ),
            "new_item_ids": (
                "The item ids to be exchanged for, each such as '1008292230'.\nThere could be "
                "duplicate items in the list. Each new item id should match the item id\nin the "
                "same position and be of the same product."
            ),
            "payment_method_id": (
                "The payment method id to pay or receive refund for the item price difference,\n"
                "such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up\n"
                "from the user or order details."
            ),
        },
    )
    def exchange_delivered_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> Order:
        order = self._get_order(order_id)
        if order.status != "delivered":
            raise ValueError("Non-delivered order cannot be exchanged")
        _count_check(order, item_ids, "Number of {} not found.")
        if len(item_ids) != len(new_item_ids):
            raise ValueError("The number of items to be exchanged should match.")
        difference, _ = self._price_difference(order, item_ids, new_item_ids, same_id_refused=False)
        difference = round(difference, 2)
        method = self._payment_method(order.user_id, payment_method_id)
        if isinstance(method, GiftCard) and method.balance < difference:
            raise ValueError("Insufficient gift card balance to pay for the price difference")
        order.status = "exchange requested"
        order.exchange_items = sorted(item_ids)
        order.exchange_new_items = sorted(new_item_ids)
        order.exchange_payment_method_id = payment_method_id
        order.exchange_price_difference = difference
        return order

    @tau2_tool(
        "read",
        (
            "Find user id by first name, last name, and zip code. If the user is not found, the "
            "function\n\nwill return an error message. By default, find user id by email, and "
            "only call this function\nif the user is not found by email or cannot remember email."
        ),
        {
            "first_name": "The first name of the customer, such as 'John'.",
            "last_name": "The last name of the customer, such as 'Doe'.",
            "zip": "The zip code of the customer, such as '12345'.",
        },
    )
    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        for user_id, user in self.db.users.items():
            if (
                user.name.first_name.lower() == first_name.lower()
                and user.name.last_name.lower() == last_name.lower()
                and user.address.zip == zip
            ):
                return user_id
        raise ValueError("User not found")

    @tau2_tool(
        "read",
        (
            "Find user id by email. If the user is not found, the function will return an error "
            "message."
        ),
        {
            "email": "The email of the user, such as 'something@example.com'.",
        },
    )
    def find_user_id_by_email(self, email: str) -> str:
        for user_id, user in self.db.users.items():
            if user.email.lower() == email.lower():
                return user_id
        raise ValueError("User not found")

    @tau2_tool(
        "read",
        "Get the status and details of an order.",
        {
            "order_id": (
                "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the "
                "beginning of the order id."
            ),
        },
    )
    def get_order_details(self, order_id: str) -> Order:
        return self._get_order(order_id)

    @tau2_tool(
        "read",
        "Get the inventory details of a product.",
        {
            "product_id": (
                "The product id, such as '6086499569'. Be careful the product id is different "
                "from the item id."
            ),
        },
    )
    def get_product_details(self, product_id: str) -> Product:
        return self._get_product(product_id)

    @tau2_tool(
        "read",
        "Get the inventory details of an item.",
        {
            "item_id": (
                "The item id, such as '6086499569'. Be careful the item id is different from the "
                "product id."
            ),
        },
    )
    def get_item_details(self, item_id: str) -> Variant:
        for product in self.db.products.values():
            if item_id in product.variants:
                return product.variants[item_id]
        raise ValueError("Item not found")

    @tau2_tool(
        "read",
        "Get the details of a user, including their orders.",
        {
            "user_id": "The user id, such as 'sara_doe_496'.",
        },
    )
    def get_user_details(self, user_id: str) -> User:
        return self._get_user(user_id)

    @tau2_tool(
        "read",
        (
            "List the name and product id of all product types.\n\nEach product type has a "
            "variety of different items with unique item ids and options.\nThere are only 50 "
            "product types in the store."
        ),
    )
    def list_all_product_types(self) -> str:
        names = {product.name: product.product_id for product in self.db.products.values()}
        return json.dumps(names, sort_keys=True)

    @tau2_tool(
        "write",
        (
            "Modify the shipping address of a pending order. The agent needs to explain the "
            "modification detail and ask for explicit user confirmation (yes/no) to proceed."
        ),
        {
            "order_id": (
                "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the "
                "beginning of the order id."
            ),
            "address1": "The first line of the address, such as '123 Main St'.",
            "address2": "The second line of the address, such as 'Apt 1' or ''.",
            "city": "The city, such as 'San Francisco'.",
            "state": "The state, such as 'CA'.",
            "country": "The country, such as 'USA'.",
            "zip": "The zip code, such as '12345'.",
        },
    )
    def modify_pending_order_address(
        self,
        order_id: str,
        address1: str,
        address2: str,
        city: str,
        state: str,
        country: str,
        zip: str,
    ) -> Order:
        order = self._get_order(order_id)
        if "pending" not in order.status:
            raise ValueError("Non-pending order cannot be modified")
        order.address = UserAddress(
            address1=address1, address2=address2, city=city, state=state, country=country, zip=zip
        )
        return order

    @tau2_tool(
        "write",
        (
            "Modify items in a pending order to new items of the same product type. For a pending "
            "order, this function can only be called once. The agent needs to explain the "
            "exchange detail and ask for explicit user confirmation (yes/no) to proceed."
        ),
        {
            "order_id": (
                "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the "
                "beginning of the order id."
            ),
            "item_ids": (
                "The item ids to be modified, each such as '1008292230'. There could be duplicate "
                "items in the list."
            ),
            "new_item_ids": (
                "The item ids to be modified for, each such as '1008292230'. There could be "
                "duplicate items in the list. Each new item id should match the item id in the "
                "same position and be of the same product."
            ),
            "payment_method_id": (
                "The payment method id to pay or receive refund for the item price difference, "
                "such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up "
                "from the user or order details."
            ),
        },
    )
    def modify_pending_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> Order:
        order = self._get_order(order_id)
        if order.status != "pending":
            raise ValueError("Non-pending order cannot be modified")
        _count_check(order, item_ids, "{} not found")
        if len(item_ids) != len(new_item_ids):
            raise ValueError("The number of items to be exchanged should match")
        difference, variant = self._price_difference(
            order, item_ids, new_item_ids, same_id_refused=True
        )
        method = self._payment_method(order.user_id, payment_method_id)
        if isinstance(method, GiftCard) and method.balance < difference:
            raise ValueError("Insufficient gift card balance to pay for the new item")
        order.payment_history.append(
            OrderPayment(
                transaction_type="payment" if difference > 0 else "refund",
                amount=abs(difference),
                payment_method_id=payment_method_id,
            )
        )
        if isinstance(method, GiftCard):
            method.balance = round(method.balance - difference, 2)
        for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
            item = next((i for i in order.items if i.item_id == item_id), None)
            if item is None:
                raise ValueError(f"Item {item_id} not found")
            assert variant is not None
            # every modified item takes the price and options of the LAST new variant, as in
            # τ²-bench (its loop variable outlives the price loop)
            item.item_id = new_item_id
            item.price = variant.price
            item.options = variant.options
        order.status = "pending (item modified)"
        return order

    @tau2_tool(
        "write",
        (
            "Modify the payment method of a pending order. The agent needs to explain the "
            "modification detail and ask for explicit user confirmation (yes/no) to proceed."
        ),
        {
            "order_id": (
                "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the "
                "beginning of the order id."
            ),
            "payment_method_id": (
                "The payment method id to pay or receive refund for the item price difference, "
                "such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up "
                "from the user or order details."
            ),
        },
    )
    def modify_pending_order_payment(self, order_id: str, payment_method_id: str) -> Order:
        order = self._get_order(order_id)
        if "pending" not in order.status:
            raise ValueError("Non-pending order cannot be modified")
        method = self._payment_method(order.user_id, payment_method_id)
        history = order.payment_history
        if len(history) != 1 or history[0].transaction_type != "payment":
            raise ValueError("There should be exactly one payment for a pending order")
        if history[0].payment_method_id == payment_method_id:
            raise ValueError("The new payment method should be different from the current one")
        amount = history[0].amount
        if isinstance(method, GiftCard) and method.balance < amount:
            raise ValueError("Insufficient gift card balance to pay for the order")
        old_id = history[0].payment_method_id
        history.extend(
            [
                OrderPayment(
                    transaction_type="payment", amount=amount, payment_method_id=payment_method_id
                ),
                OrderPayment(transaction_type="refund", amount=amount, payment_method_id=old_id),
            ]
        )
        if isinstance(method, GiftCard):
            method.balance = round(method.balance - amount, 2)
        old = self._payment_method(order.user_id, old_id)
        if isinstance(old, GiftCard):
            old.balance = round(old.balance + amount, 2)
        return order

    @tau2_tool(
        "write",
        (
            "Modify the default address of a user. The agent needs to explain the modification "
            "detail and ask for explicit user confirmation (yes/no) to proceed."
        ),
        {
            "user_id": "The user id, such as 'sara_doe_496'.",
            "address1": "The first line of the address, such as '123 Main St'.",
            "address2": "The second line of the address, such as 'Apt 1' or ''.",
            "city": "The city, such as 'San Francisco'.",
            "state": "The state, such as 'CA'.",
            "country": "The country, such as 'USA'.",
            "zip": "The zip code, such as '12345'.",
        },
    )
    def modify_user_address(
        self,
        user_id: str,
        address1: str,
        address2: str,
        city: str,
        state: str,
        country: str,
        zip: str,
    ) -> User:
        user = self._get_user(user_id)
        user.address = UserAddress(
            address1=address1, address2=address2, city=city, state=state, country=country, zip=zip
        )
        return user

    @tau2_tool(
        "write",
        (
            "Return some items of a delivered order.\n\nThe order status will be changed to "
            "'return requested'.\nThe agent needs to explain the return detail and ask for "
            "explicit user confirmation (yes/no) to proceed.\nThe user will receive follow-up "
            "email for how and where to return the item."
        ),
        {
            "order_id": (
                "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the "
                "beginning of the order id."
            ),
            "item_ids": (
                "The item ids to be returned, each such as '1008292230'. There could be duplicate "
                "items in the list."
            ),
            "payment_method_id": (
                "The payment method id to pay or receive refund for the item price difference, "
                "such as 'gift_card_0000000' or 'credit_card_0000000'.\nThese can be looked up "
                "from the user or order details."
            ),
        },
    )
    def return_delivered_order_items(
        self, order_id: str, item_ids: list[str], payment_method_id: str
    ) -> Order:
        order = self._get_order(order_id)
        if order.status != "delivered":
            raise ValueError("Non-delivered order cannot be returned")
        user = self._get_user(order.user_id)
        method = self._payment_method(user.user_id, payment_method_id)
        if (
            not isinstance(method, GiftCard)
            and payment_method_id != order.payment_history[0].payment_method_id
        ):
            raise ValueError("Payment method should be the original payment method")
        _count_check(order, item_ids, "Some item not found")
        order.status = "return requested"
        order.return_items = sorted(item_ids)
        order.return_payment_method_id = payment_method_id
        return order

    @tau2_tool(
        "generic",
        (
            "Transfer the user to a human agent, with a summary of the user's issue.\n\nOnly "
            "transfer if\n -  the user explicitly asks for a human agent\n -  given the policy "
            "and the available tools, you cannot solve the user's issue."
        ),
        {
            "summary": "A summary of the user's issue.",
        },
    )
    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"
